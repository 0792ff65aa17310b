extension ReportHTML {
    /// The page's CSS: system fonts, no web fonts, readable in print (details open, no tooltips).
    static let style = """
        :root{--ink:#1d2125;--muted:#5b6470;--line:#d9dde3;--bad:#b3261e;--bad-bg:#fdecea;--good:#1e6b34;--card:#f7f8fa}
        *{box-sizing:border-box}
        body{margin:0;font:15px/1.45 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--ink);background:#fff}
        main{max-width:1080px;margin:0 auto;padding:24px 20px 48px}
        h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 10px}h3{font-size:15px;margin:18px 0 6px}
        .meta{color:var(--muted);margin:0}
        .briefing{margin:12px 0 0;padding:10px 14px;border-left:4px solid var(--bad);background:var(--bad-bg)}
        .tiles{display:grid;grid-template-columns:repeat(auto-fit,minmax(190px,1fr));gap:12px;margin-top:20px}
        .tile{margin:0;padding:12px 14px;border:1px solid var(--line);border-radius:10px;background:var(--card)}
        .tile figcaption{font-weight:600;color:var(--muted);font-size:13px}
        .tile .value{margin:4px 0 0;font-size:28px;font-weight:650;font-variant-numeric:tabular-nums}
        .tile .unit{font-size:15px;font-weight:500;color:var(--muted)}
        .tile .delta{margin:2px 0 6px;font-size:13px;color:var(--good)}
        .tile.worse{border-color:var(--bad);background:var(--bad-bg)}
        .tile.worse .delta,.tile.worse .number{color:var(--bad)}
        .tile .sub{margin:4px 0 0;font-size:12px;color:var(--muted)}
        .spark{width:100%;height:32px;display:block}
        .spark polyline{fill:none;stroke:#5b6470;stroke-width:1.6}
        .spark circle{fill:#1d2125}
        .tile.worse .spark polyline{stroke:var(--bad)}.tile.worse .spark circle{fill:var(--bad)}
        .chart{width:100%;max-width:760px;height:auto;display:block}
        .chart .grid{stroke:#eceef1}.chart .axis{stroke:#8a929c}
        .chart .tick,.chart .legend,.chart .axis-label{font-size:12px;fill:#3b434c}
        .chart polyline{stroke-width:2}
        table{border-collapse:collapse;font-variant-numeric:tabular-nums}
        th,td{padding:4px 10px;text-align:right;border-bottom:1px solid var(--line)}
        th[scope=row],thead th:first-child{text-align:left;font-weight:500}
        thead th{font-size:13px;color:var(--muted);font-weight:600}
        .chart-data{margin-top:8px;font-size:13px}.chart-data caption{text-align:left;color:var(--muted);padding-bottom:4px}
        tr.worse th,tr.worse td{background:var(--bad-bg)}
        .badge{display:inline-block;padding:0 6px;border-radius:4px;font-size:12px;font-weight:700}
        .badge.over{color:#7a4a00;background:#fff1d6}.badge.worse{color:#fff;background:var(--bad)}
        .worse-list li{color:var(--bad)}.worse-list .confidence{color:var(--muted);font-size:13px}
        .rates{font:13px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--card);padding:10px 12px;border-radius:8px;overflow-x:auto}
        .hint{color:var(--muted);font-size:13px}
        .stacks{padding-left:22px}
        details.stack{margin:6px 0}
        details.stack summary{cursor:pointer}
        details.stack code{font-size:13px}
        .weight{font-weight:600}
        .cause{font-weight:600;color:var(--bad)}
        .where{display:block;color:var(--muted);font-size:13px;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
        .flame{margin:8px 0 4px}
        .flame svg{width:100%;display:block;font:11px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
        .flame g.frame{cursor:pointer}
        .flame g.frame rect{stroke:#fff;stroke-width:.6}
        .flame g.frame:hover rect,.flame g.frame:focus rect{stroke:#1d2125;stroke-width:1.2}
        .flame g.frame text{fill:#1d2125;pointer-events:none}
        .flame button{margin-top:4px}
        .tooltip{position:fixed;z-index:10;max-width:min(520px,92vw);padding:6px 9px;border-radius:6px;background:#1d2125;color:#fff;font-size:12px;pointer-events:none;white-space:pre-line}
        .scroll{overflow-x:auto}
        @media (max-width:640px){main{padding:16px 12px 40px}
        table.intervals,table.chart-data{display:block;overflow-x:auto;max-width:100%}
        .scroll>.chart{min-width:600px}.flame{overflow-x:auto}.flame svg{min-width:1000px}}
        @media print{main{max-width:none;padding:0}.tooltip,.flame button,.hint{display:none}.tile{break-inside:avoid}details.stack>summary{list-style:none}}
        """

    /// Draws the icicle graphs from `#flame-data`, zooms on click, shows a tooltip. Plain ES2017, no
    /// libraries; errors would show in the browser console, which the tests watch.
    static let script = """
        (function(){
        "use strict";
        var data=JSON.parse(document.getElementById("flame-data").textContent);
        var names=data.names;
        var tooltip=document.getElementById("tooltip");
        var SVG="http://www.w3.org/2000/svg",WIDTH=1000,ROW=18;
        function seconds(ms){return ms>=100?(ms/1000).toFixed(1)+" s":ms+" ms";}
        function color(name){var h=0;for(var i=0;i<name.length;i++){h=(h*31+name.charCodeAt(i))|0;}
          h=Math.abs(h);return "hsl("+(10+h%45)+","+(60+h%25)+"%,"+(62+h%14)+"%)";}
        function flatten(root){var nodes=[],stack=[[root,null,0]];
          while(stack.length){var item=stack.pop(),raw=item[0];
            var node={name:names[raw[0]],location:raw[1]>=0?names[raw[1]].slice(1):null,ms:raw[2],parent:item[1],depth:item[2],children:[]};
            node.index=nodes.length;nodes.push(node);if(item[1])item[1].children.push(node);
            for(var c=raw.length-1;c>=3;c--)stack.push([raw[c],node,item[2]+1]);}
          return nodes;}
        function draw(container){
          var graph=data.graphs[container.getAttribute("data-graph")];
          if(!graph||container.firstChild)return;
          var nodes=flatten(graph),depth=0;nodes.forEach(function(n){depth=Math.max(depth,n.depth);});
          var svg=document.createElementNS(SVG,"svg");
          svg.setAttribute("viewBox","0 0 "+WIDTH+" "+(depth+1)*ROW);
          svg.setAttribute("role","img");
          svg.setAttribute("aria-label","Icicle graph of "+nodes.length+" frames; the top frame is "+seconds(nodes[0].ms));
          nodes.forEach(function(node){
            var g=document.createElementNS(SVG,"g");g.setAttribute("class","frame");g.setAttribute("tabindex","0");
            g.setAttribute("data-name",node.name);g.setAttribute("data-ms",node.ms);g.setAttribute("data-depth",node.depth);
            g.setAttribute("data-index",node.index);
            var title=document.createElementNS(SVG,"title");
            title.textContent=node.name+(node.location?"\\n"+node.location:"")+"\\n"+seconds(node.ms);
            var rect=document.createElementNS(SVG,"rect");rect.setAttribute("height",ROW-1);rect.setAttribute("y",node.depth*ROW);
            rect.setAttribute("fill",node.depth===0?"#c9ced6":color(node.name));
            var text=document.createElementNS(SVG,"text");text.setAttribute("y",node.depth*ROW+12.5);
            g.appendChild(title);g.appendChild(rect);g.appendChild(text);svg.appendChild(g);node.g=g;
            g.addEventListener("click",function(){zoom(node);});
            g.addEventListener("keydown",function(e){if(e.key==="Enter"||e.key===" "){e.preventDefault();zoom(node);}});
            g.addEventListener("mousemove",function(e){tooltip.hidden=false;
              tooltip.textContent=node.name+"\\n"+(node.location||"no file:line")+"\\n"+seconds(node.ms)+" ("+(100*node.ms/nodes[0].ms).toFixed(1)+"%)";
              tooltip.style.left=Math.min(e.clientX+12,window.innerWidth-540)+"px";tooltip.style.top=(e.clientY+14)+"px";});
            g.addEventListener("mouseleave",function(){tooltip.hidden=true;});
          });
          container.appendChild(svg);
          var reset=document.createElement("button");reset.type="button";reset.textContent="Zoom out";
          reset.addEventListener("click",function(){zoom(nodes[0]);});container.appendChild(reset);
          function zoom(focus){
            var ancestors=new Set();for(var a=focus;a;a=a.parent)ancestors.add(a);
            function place(node,x,w){node.x=x;node.w=w;var cx=x;
              node.children.forEach(function(c){var cw=node.ms>0?w*c.ms/node.ms:0;place(c,cx,cw);cx+=cw;});}
            nodes.forEach(function(n){n.x=0;n.w=0;});
            place(focus,0,WIDTH);
            for(var p=focus.parent;p;p=p.parent){p.x=0;p.w=WIDTH;}
            nodes.forEach(function(n){var visible=(ancestors.has(n)||n.depth>=focus.depth)&&n.w>=0.5;
              n.g.style.display=visible?"":"none";if(!visible)return;
              var rect=n.g.childNodes[1],text=n.g.childNodes[2];
              rect.setAttribute("x",n.x.toFixed(2));rect.setAttribute("width",Math.max(0,n.w-0.5).toFixed(2));
              text.setAttribute("x",(n.x+4).toFixed(2));var fit=Math.floor((n.w-8)/6.8);
              text.textContent=fit>=3?(n.name.length>fit?n.name.slice(0,fit-1)+"\\u2026":n.name):"";});
            svg.setAttribute("data-zoomed",focus.index);
          }
          zoom(nodes[0]);
        }
        document.querySelectorAll("details.stack").forEach(function(details){
          var container=details.querySelector(".flame");if(!container)return;
          if(details.open)draw(container);
          details.addEventListener("toggle",function(){if(details.open)draw(container);});
        });
        window.addEventListener("beforeprint",function(){document.querySelectorAll("details.stack").forEach(function(d){d.open=true;});});
        })();
        """
}
